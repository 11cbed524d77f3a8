struct s1 { int a; } v1;
v1.b = 2;
