%%cc -O3
int cubed(int x) { return square(x) * x; }
