%%speedup --check cpu_out,gpu_out:N --atol 0.5 --sizes 10,100 -n 1 -r 1
//%% cpu
for (int i = 0; i < N; i++) cpu_out[i] = 2 * x[i];
//%% gpu
for (int i = 0; i < N; i++) gpu_out[i] = 2 * x[i] + (i == 7 ? 1 : i ? 0.25f : 0);
