#!/usr/bin/env python3
# Writes a hostile rpmdb.sqlite with Python's sqlite3 module:
#   hostile-rpmdb.py view PATH     Packages is a view over a recursive query
#                                  that never ends (4 KiB)
#   hostile-rpmdb.py rows N PATH   Packages is a real table of N rows, each
#                                  an 8-byte blob that is no rpm header
import os
import sqlite3
import sys

# Counts up for ever; the WHERE clause never lets a row out, so the first
# step of "SELECT blob FROM Packages" would run until stopped.
ENDLESS = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
           "SELECT i, x'00' FROM n WHERE i < 0")


def main():
    kind, path = sys.argv[1], sys.argv[-1]
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    if kind == "view":
        db.execute("CREATE VIEW Packages(hnum, blob) AS " + ENDLESS)
    elif kind == "rows":
        n = int(sys.argv[2])
        db.execute("CREATE TABLE Packages (hnum INTEGER PRIMARY KEY AUTOINCREMENT, blob BLOB NOT NULL)")
        db.executemany("INSERT INTO Packages VALUES (?, ?)", ((i + 1, b"\0" * 8) for i in range(n)))
    else:
        sys.exit("unknown kind " + kind)
    db.commit()
    db.close()


main()
