#define SWAP(a, b) do { int t_ = (a); (a) = (b); (b) = t_; } while (0)
#define MAX(a, b) ((a) > (b) ? (a) : (b))
int p1 = 1, p2 = 2;
SWAP(p1, p2);
printf("%d %d\n", p1, p2);
