int len = (int)strlen("four"), len2 = len * 2;
len2
