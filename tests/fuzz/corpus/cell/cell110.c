int f1(int);
int g1(int);
f1(1) + g1(2)
