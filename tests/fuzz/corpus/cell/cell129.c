void recurse(int n) { volatile char buf[256]; buf[0] = (char)n; recurse(n + 1); }
