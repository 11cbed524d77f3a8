pr
