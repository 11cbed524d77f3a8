typedef struct { int n; double sum; } acc_t;
double weight = 0.5;
int square(int x) { return x * x; }
