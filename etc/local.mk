# etc — targets of this directory
# The example hetsched.conf(5), installed with the documentation.
dist_doc_DATA += etc/hetsched.conf
# Notes for administrators on select/hetsched_cons_tres (issue 7).
dist_doc_DATA += etc/select_hetsched_cons_tres.txt
