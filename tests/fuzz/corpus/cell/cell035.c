struct p { int x, y, z; };
struct p q = {.x = 1, .z = 3};
q.x * 100 + q.y * 10 + q.z
