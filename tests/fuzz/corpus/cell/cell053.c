long sq(long a, long b) { return a * b; }
sq(6, 7)
