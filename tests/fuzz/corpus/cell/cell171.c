struct s { double d; };
double x = 1.5;
x
