printf("statement first\n");
int main(void) { printf("then main\n"); return 0; }
