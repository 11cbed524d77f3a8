%%speedup --check cpu_out,gpu_out:100 -n 1 -r 1
//%% cpu
for (int i = 0; i < 100; i++) cpu_out[i] = 2 * x[i];
//%% gpu
for (int i = 0; i < 100; i++) gpu_out[i] = x[i] + x[i];
gpu_out[50] = 0;
