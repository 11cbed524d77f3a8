#define DECLARE_PAIR int m1 = 1; int m2 = 2;
DECLARE_PAIR
