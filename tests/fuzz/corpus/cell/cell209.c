%%speedup --sizes 1e3,big
//%% cpu
//%% gpu
