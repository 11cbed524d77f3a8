(_Bool)1
