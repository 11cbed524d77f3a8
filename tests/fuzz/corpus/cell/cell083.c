bool flag = false;
flag
