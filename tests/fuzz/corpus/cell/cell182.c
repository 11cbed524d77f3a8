%lib no_such_library_gpuc
