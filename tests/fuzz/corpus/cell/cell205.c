float x[100], cpu_out[100], gpu_out[100];
for (int i = 0; i < 100; i++) x[i] = i;
