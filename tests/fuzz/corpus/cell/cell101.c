extern int printf(const char *, ...);
printf("still printf\n");
