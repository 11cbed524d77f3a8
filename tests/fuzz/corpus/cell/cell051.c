int sq(int a) { return a * a * a; }
sq(5)
