int later(int);
