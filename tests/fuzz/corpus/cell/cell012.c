typedef unsigned long u64;
typedef struct { double re, im; } complex_t;
struct node { int value; struct node *next; };
union bits { float f; unsigned int u; };
enum color { RED, GREEN = 5, BLUE };

u64 fact(u64 n) { return n < 2 ? 1 : n * fact(n - 1); }
complex_t cmul(complex_t a, complex_t b) {
    complex_t r = { a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re };
    return r;
}
