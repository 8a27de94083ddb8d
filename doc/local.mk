# doc — targets of this directory
