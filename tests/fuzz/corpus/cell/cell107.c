int q = ;
