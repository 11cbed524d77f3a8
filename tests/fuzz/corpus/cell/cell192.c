%%timeit -n 20 -r 3 double local = 2.0;
local = sqrt(local);
step();
