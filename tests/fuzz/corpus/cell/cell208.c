%%speedup -n 1
for (;;) {}
//%% cpu
//%% gpu
