struct pt { int x, y; };
int step = 0;
struct pt mk(int x, int y) { struct pt r = {x, y}; return r; }
step++;
step
