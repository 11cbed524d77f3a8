printf("one\n");
int a = 10;
printf("a = %d\n", a);
int b = a * 2;
a = 5;
printf("b = %d, a = %d\n", b, a);
int twice(int v) { return 2 * v; }
printf("twice(a) = %d\n", twice(a));
