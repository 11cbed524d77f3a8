typedef struct vec { int n; int data[4]; } vec;
vec make(int n) { vec v = {n, {0}}; for (int i = 0; i < n; i++) v.data[i] = i * i; return v; }
vec sq = make(4);
sq.data[3]
