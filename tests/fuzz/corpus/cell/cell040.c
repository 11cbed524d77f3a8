free(v);
v = NULL;
