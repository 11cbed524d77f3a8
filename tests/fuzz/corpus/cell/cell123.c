int before = 1;
deref(NULL)
