int later(int v) { return v * 3; }
