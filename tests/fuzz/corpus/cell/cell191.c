%timeit step();
