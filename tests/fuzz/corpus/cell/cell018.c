sizeof(u64) + sizeof(complex_t)
