int helper(int v) { return v + 1; }
int main(void) {
    printf("in main\n");
    return helper(2);
}
