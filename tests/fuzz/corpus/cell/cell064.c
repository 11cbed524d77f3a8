calls_base() + base()
