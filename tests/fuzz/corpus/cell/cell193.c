%timeit -q -o -n 5 -r 2 step();
