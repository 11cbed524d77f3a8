typedef int T;
T x = 3;
struct p { T a; } q = {1};
q.a + x