%ptx saxpy
