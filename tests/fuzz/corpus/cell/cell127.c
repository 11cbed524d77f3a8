abort();
