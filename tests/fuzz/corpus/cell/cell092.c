int seen = 0;
int main(int argc, char **argv) {
    seen = argc;
    printf("argc = %d, argv[0] = %s, argv[1] = %s\n", argc, argv[0], argv[1] ? argv[1] : "NULL");
    return 0;
}
