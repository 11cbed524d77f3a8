int f1(int v) { return v; }
int g1(int v) { return 2 * v; }
f1(1) + g1(2)
