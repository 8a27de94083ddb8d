# etc — targets of this directory
# The example hetsched.conf(5), installed with the documentation.
dist_doc_DATA += etc/hetsched.conf
