struct{} struct e {int a;} x;
struct{} enum e {A} y;
