int zero = 0;
int divide(int a) { return a / zero; }
