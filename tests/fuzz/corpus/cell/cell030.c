int n = atoi("42");
double *v = malloc(n * sizeof *v);
for (int i = 0; i < n; i++)
    v[i] = i * 0.5;
