// SPDX-License-Identifier: MIT
// The drop-in says, once a process, which library answers cuFile's calls and from where: a
// program that meant to load NVIDIA's libcufile can tell from its log (issue 22, docs/cufile.md).
#pragma once

namespace hipfile::cufile {

// Logs the line at info level the first time it is called in the process; nothing after. Called
// wherever the driver can open: cuFileDriverOpen, and the registrations that open it implicitly
// (cuFileHandleRegister, cuFileBufRegister), as torch.cuda.gds never calls cuFileDriverOpen.
void AnnounceOnce();

}  // namespace hipfile::cufile
