add<<<1, 32>>>(a, b, n);
int f(int (*g)(int)) { return g(1); }
