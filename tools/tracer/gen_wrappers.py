#!/usr/bin/env python3
"""Generates the PMPI wrappers of the perfcast tracer from mpi_calls.def.

For each prototype `int MPI_X(args) => recorder(exprs)` it writes

    int MPI_X(args) {
      <save request handles the recorder needs before PMPI may free them>
      double t0 = pc_enter();
      int rc = PMPI_X(arg names);
      recorder(exprs) -- unless rc != MPI_SUCCESS; under pc_lock()
      pc_leave("MPI_X", t0);
      return rc;
    }

and, for Fortran codes, `mpi_x_` (and `mpi_x`, `mpi_x__`) that convert
handles with MPI_*_f2c and call the C wrapper, so one recorder serves both.
usage: gen_wrappers.py mpi_calls.def OUT.c
"""
import re
import sys

PROTO = re.compile(r"^int\s+(MPI_\w+)\s*\((.*)\)\s*=>\s*(before\s+)?(.+)$")


def parse_params(text):
    text = text.strip()
    if text == "void":
        return []
    params = []
    for raw in text.split(","):
        raw = raw.strip()
        m = re.match(r"^(.*?)(\w+)\s*(\[\])?$", raw)
        if not m:
            sys.exit(f"cannot parse parameter '{raw}'")
        ctype, name, array = m.group(1).strip(), m.group(2), m.group(3)
        params.append((ctype + (" *" if array else ""), name, raw))
    return params


def fortran_args(name, params):
    """Fortran binding: every argument by reference, handles as MPI_Fint."""
    decls, conv, call, post = [], [], [], []
    count = "count" if any(p[1] == "count" for p in params) else "incount"
    for ctype, pname, raw in params:
        base = ctype.replace("const", "").strip()
        if base in ("void *",) or base == "void*":
            decls.append(f"void *{pname}")
            call.append(pname)
        elif base == "int":
            decls.append(f"MPI_Fint *{pname}")
            call.append(f"(int)*{pname}")
        elif base in ("int *",):
            decls.append(f"MPI_Fint *{pname}")
            if pname in ("sendcounts", "recvcounts", "sdispls", "rdispls", "displs"):
                call.append(f"(int *){pname}")
            elif pname == "array_of_indices":  # Fortran counts from 1
                call.append(f"(int *){pname}")
                post.append(f"for (int i = 0; i < c_outcount && c_outcount != MPI_UNDEFINED; ++i) {pname}[i] += 1;")
            elif pname == "indx":
                conv.append(f"int c_{pname} = 0;")
                call.append(f"&c_{pname}")
                post.append(f"*{pname} = (MPI_Fint)(c_{pname} >= 0 ? c_{pname} + 1 : c_{pname});")
            else:
                conv.append(f"int c_{pname} = 0;")
                call.append(f"&c_{pname}")
                post.append(f"*{pname} = (MPI_Fint)c_{pname};")
        elif base == "MPI_Datatype":
            decls.append(f"MPI_Fint *{pname}")
            call.append(f"MPI_Type_f2c(*{pname})")
        elif base == "MPI_Comm":
            decls.append(f"MPI_Fint *{pname}")
            call.append(f"MPI_Comm_f2c(*{pname})")
        elif base == "MPI_Op":
            decls.append(f"MPI_Fint *{pname}")
            call.append(f"MPI_Op_f2c(*{pname})")
        elif base == "MPI_Comm *":
            decls.append(f"MPI_Fint *{pname}")
            conv.append(f"MPI_Comm c_{pname} = MPI_COMM_NULL;")
            call.append(f"&c_{pname}")
            post.append(f"*{pname} = MPI_Comm_c2f(c_{pname});")
        elif base == "MPI_Request *" and pname == "request":
            decls.append(f"MPI_Fint *{pname}")
            conv.append(f"MPI_Request c_{pname} = MPI_Request_f2c(*{pname});")
            call.append(f"&c_{pname}")
            post.append(f"*{pname} = MPI_Request_c2f(c_{pname});")
        elif base == "MPI_Status *" and pname == "status":
            decls.append(f"MPI_Fint *{pname}")
            conv.append(f"MPI_Status c_{pname}, *p_{pname} = {pname} == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : &c_{pname};")
            call.append(f"p_{pname}")
            post.append(f"if (p_{pname} != MPI_STATUS_IGNORE) MPI_Status_c2f(&c_{pname}, {pname});")
        elif base == "MPI_Request *" and pname == "array_of_requests":
            decls.append(f"MPI_Fint *{pname}")
            conv.append(f"MPI_Request *c_{pname} = pc_requests_f2c((int)*{count}, {pname});")
            call.append(f"c_{pname}")
            post.append(f"pc_requests_c2f((int)*{count}, c_{pname}, {pname});")
        elif base == "MPI_Status *" and pname == "array_of_statuses":
            decls.append(f"MPI_Fint *{pname}")
            conv.append(f"MPI_Status *c_{pname} = {pname} == MPI_F_STATUSES_IGNORE ? MPI_STATUSES_IGNORE "
                        f": pc_statuses((int)*{count});")
            call.append(f"c_{pname}")
            # waitsome/testsome fill only the first outcount statuses
            n = "c_outcount" if any(p[1] == "outcount" for p in params) else f"(int)*{count}"
            post.append(f"if (c_{pname} != MPI_STATUSES_IGNORE) for (int i = 0; i < {n}; ++i) "
                        f"MPI_Status_c2f(&c_{pname}[i], {pname} + (size_t)i * MPI_F_STATUS_SIZE);")
        else:
            return None  # no Fortran binding generated for this one
    decls.append("MPI_Fint *ierr")
    return decls, conv, call, post


def main(src, out):
    lines = []
    for lineno, line in enumerate(open(src), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = PROTO.match(line)
        if not m:
            sys.exit(f"{src}:{lineno}: expected 'int MPI_X(params) => recorder(args)'")
        lines.append((m.group(1), parse_params(m.group(2)), m.group(4).strip(), bool(m.group(3))))
    o = open(out, "w")
    o.write("/* Generated by gen_wrappers.py from mpi_calls.def: do not edit. */\n")
    o.write('#include "tracer.h"\n\n')
    for name, params, recorder, before in lines:
        names = ", ".join(p[1] for p in params)
        sig = ", ".join(p[2] for p in params) or "void"
        o.write(f"int {name}({sig})\n{{\n")
        # requests are read before PMPI completes (and may free) them
        if "saved_request_0" in recorder:
            o.write("  MPI_Request saved_request_0 = request ? *request : MPI_REQUEST_NULL;\n")
        if "saved_requests" in recorder:
            count = "count" if any(p[1] == "count" for p in params) else "incount"
            o.write(f"  MPI_Request *saved_requests = pc_save_requests({count}, array_of_requests);\n")
        o.write("  double t0 = pc_enter();\n")
        # recorders run under the tracer's lock at MPI_THREAD_MULTIPLE, never across the PMPI call
        if before:  # the call may not return (MPI_Abort)
            o.write(f"  int locked = pc_lock();\n  {recorder};\n  pc_unlock(locked);\n")
        o.write(f"  int rc = P{name}({names});\n")
        if not before:
            o.write(f"  if (rc == MPI_SUCCESS) {{\n    int locked = pc_lock();\n    {recorder};\n"
                    f"    pc_unlock(locked);\n  }}\n")
        o.write(f'  pc_leave("{name}", t0);\n  return rc;\n}}\n\n')
    o.write("/* Fortran bindings */\n")
    for name, params, recorder, before in lines:
        lower = name.lower()
        if name == "MPI_Init":
            body = "  int c_argc = 0;\n  char **c_argv = NULL;\n  (void)argc; (void)argv;\n  *ierr = (MPI_Fint)MPI_Init(&c_argc, &c_argv);\n"
            decls = ["MPI_Fint *ierr"]
            for suffix in ("_", "", "__"):
                o.write(f"void {lower}{suffix}(MPI_Fint *ierr)\n{{\n  int c_argc = 0;\n  char **c_argv = NULL;\n"
                        f"  *ierr = (MPI_Fint)MPI_Init(&c_argc, &c_argv);\n}}\n\n")
            continue
        if name == "MPI_Init_thread":
            for suffix in ("_", "", "__"):
                o.write(f"void {lower}{suffix}(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)\n{{\n"
                        f"  int c_argc = 0, c_provided = 0;\n  char **c_argv = NULL;\n"
                        f"  *ierr = (MPI_Fint)MPI_Init_thread(&c_argc, &c_argv, (int)*required, &c_provided);\n"
                        f"  *provided = (MPI_Fint)c_provided;\n}}\n\n")
            continue
        fa = fortran_args(name, params)
        if fa is None:
            print(f"gen_wrappers.py: no Fortran binding for {name}", file=sys.stderr)
            continue
        decls, conv, call, post = fa
        for suffix in ("_", "", "__"):
            o.write(f"void {lower}{suffix}({', '.join(decls)})\n{{\n")
            for c in conv:
                o.write(f"  {c}\n")
            o.write(f"  *ierr = (MPI_Fint){name}({', '.join(call)});\n")
            for p in post:
                o.write(f"  {p}\n")
            o.write("}\n\n")
    o.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
