_timeit.runs * 10 + _timeit.loops
