int sq(int a) { return a * a; }
sq(5)
