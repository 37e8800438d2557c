#!/usr/bin/env python3
"""Writes the SPDX 2.3 SBOM (JSON) of one Debian package of this project.

What it lists, and where each fact comes from:
- the package itself (name, version, architecture: the package's control file);
- every Swift package linked into its executables: the modules each executable was linked
  from (SwiftPM's `PRODUCT.product/Objects.LinkFileList` in the build folder), each module
  traced to the checkout that holds its sources, and that checkout's identity, version,
  resolved commit and address (Package.resolved) and licence (its LICENSE file);
- the Swift runtime linked in statically (the compiler's `swift --version`);
- the Debian packages it depends on (its `Depends`), at the version the build machine had.

Usage: sbom.py --control DEBIAN/control --scratch BUILD_DIR --root CHECKOUT
               --product clupd [--product clupctl ...] --epoch SECONDS --out FILE.spdx.json
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone

SUPPLIER = "Organization: CLup Totem developers"


def control_fields(path):
    fields, key = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
    return fields


def licence(checkout):
    """The SPDX id of a checkout's licence, from its licence file's words."""
    for name in ("LICENSE.txt", "LICENSE", "LICENSE.md", "COPYING", "LICENCE"):
        path = os.path.join(checkout, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(20000)
            if "Apache License" in text and "Version 2.0" in text:
                return "Apache-2.0"
            if "Permission is hereby granted, free of charge" in text:
                return "MIT"
            if "Redistribution and use in source and binary forms" in text:
                return "BSD-3-Clause" if "Neither the name" in text else "BSD-2-Clause"
            return "NOASSERTION"
    return "NOASSERTION"


def spdx_id(text):
    return re.sub(r"[^A-Za-z0-9.-]", "-", text)


def modules_linked(scratch, product):
    """The modules linked into PRODUCT, each with its build folder."""
    path = os.path.join(scratch, "release", product + ".product", "Objects.LinkFileList")
    if not os.path.exists(path):
        sys.exit(f"sbom: {path} is missing: build {product} first")
    modules = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = re.search(r"^(.*/([^/]+)\.build)/", line.strip())
            if match:
                modules[match.group(2)] = match.group(1)
    return modules


def checkout_of(build_folder, root):
    """The checkout folder a module's sources are in (SwiftPM's `sources` list, or a C
    file's dependency list), "" for this project's own, None if neither says."""
    candidates = [os.path.join(build_folder, "sources")]
    for folder, _, files in os.walk(build_folder):
        candidates += [os.path.join(folder, name) for name in files if name.endswith(".d")]
        if len(candidates) > 50:
            break
    for candidate in candidates:
        if not os.path.isfile(candidate):
            continue
        with open(candidate, encoding="utf-8", errors="replace") as f:
            text = f.read(200000)
        match = re.search(r"/checkouts/([^/\s]+)/", text)
        if match:
            return match.group(1)
        if os.path.join(root, "Sources") + "/" in text:
            return ""
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--control", required=True)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--product", action="append", required=True)
    parser.add_argument("--epoch", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    control = control_fields(args.control)
    name, version, arch = control["Package"], control["Version"], control["Architecture"]
    with open(os.path.join(args.root, "Package.resolved"), encoding="utf-8") as f:
        resolved = json.load(f)
    pins = {}
    for pin in resolved["pins"]:
        folder = pin["location"].rstrip("/").rsplit("/", 1)[-1]
        folder = folder[:-4] if folder.endswith(".git") else folder
        pins[folder] = pin
    checkouts = os.path.join(args.scratch, "checkouts")

    # Each module linked in, to the checkout whose sources hold it (or this project's own).
    linked, unknown = {}, []
    root = os.path.realpath(args.root)
    for product in args.product:
        for module, build_folder in modules_linked(args.scratch, product).items():
            owner = checkout_of(build_folder, root)
            if owner is None:
                unknown.append(module)
            elif owner:
                if owner not in pins:
                    sys.exit(f"sbom: {owner} is linked in but not in Package.resolved")
                linked.setdefault(owner, set()).add(module)
    if unknown:
        sys.exit(f"sbom: modules linked into {name} with no checkout found for them: {', '.join(sorted(unknown))}")

    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
    swift_version = (re.search(r"Swift version ([0-9][0-9.]*)", swift) or re.search(r"([0-9]+\.[0-9.]+)", swift)).group(1)

    root_id = "SPDXRef-Package-" + spdx_id(name)
    packages = [{
        "SPDXID": root_id, "name": name, "versionInfo": version, "supplier": SUPPLIER,
        "originator": SUPPLIER, "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION", "licenseDeclared": "LicenseRef-proprietary", "copyrightText": "2026 CLup Totem developers",
        "primaryPackagePurpose": "APPLICATION",
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                          "referenceLocator": f"pkg:deb/clup/{name}@{version}?arch={arch}"}],
        "comment": f"The Debian package {name} {version} ({arch}); its executables: {', '.join(args.product)}.",
    }]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": root_id}]

    for folder in sorted(linked):
        pin = pins[folder]
        state = pin["state"]
        owner = pin["location"].rstrip("/").split("/")[-2]
        package_id = "SPDXRef-Swift-" + spdx_id(folder)
        host_path = re.sub(r"^https://", "", pin["location"]).removesuffix(".git")
        packages.append({
            "SPDXID": package_id, "name": folder, "versionInfo": state.get("version") or state["revision"],
            "supplier": f"Organization: {owner}", "downloadLocation": f"git+{pin['location']}@{state['revision']}",
            "filesAnalyzed": False, "licenseConcluded": licence(os.path.join(checkouts, folder)),
            "licenseDeclared": licence(os.path.join(checkouts, folder)), "copyrightText": "NOASSERTION",
            "primaryPackagePurpose": "LIBRARY", "sourceInfo": f"commit {state['revision']}",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:swift/{host_path}@{state.get('version') or state['revision']}"}],
            "comment": "Linked in statically; modules: " + ", ".join(sorted(linked[folder])) + ".",
        })
        relationships.append({"spdxElementId": root_id, "relationshipType": "CONTAINS", "relatedSpdxElement": package_id})

    runtime_id = "SPDXRef-Swift-runtime"
    packages.append({
        "SPDXID": runtime_id, "name": "swift-runtime", "versionInfo": swift_version, "supplier": "Organization: Swift project",
        "downloadLocation": f"https://download.swift.org/swift-{swift_version}-release/", "filesAnalyzed": False,
        "licenseConcluded": "Apache-2.0 WITH Swift-exception", "licenseDeclared": "Apache-2.0 WITH Swift-exception",
        "copyrightText": "NOASSERTION", "primaryPackagePurpose": "LIBRARY",
        "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                          "referenceLocator": f"pkg:generic/swift-runtime@{swift_version}"}],
        "comment": "The Swift standard library, Foundation and Dispatch, linked in statically (--static-swift-stdlib).",
    })
    relationships.append({"spdxElementId": root_id, "relationshipType": "CONTAINS", "relatedSpdxElement": runtime_id})

    depends = [part.strip() for part in control.get("Depends", "").split(",") if part.strip()]
    for dependency in depends:
        first = dependency.split("|")[0].strip()
        dep_name = first.split()[0].split(":")[0]
        query = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", dep_name], capture_output=True, text=True)
        dep_version = query.stdout.strip() if query.returncode == 0 and query.stdout.strip() else "NOASSERTION"
        dep_id = "SPDXRef-Deb-" + spdx_id(dep_name)
        if any(p["SPDXID"] == dep_id for p in packages):
            continue
        packages.append({
            "SPDXID": dep_id, "name": dep_name, "versionInfo": dep_version, "supplier": "Organization: Debian",
            "downloadLocation": "https://deb.debian.org/debian/", "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
            "primaryPackagePurpose": "LIBRARY",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:deb/debian/{dep_name}@{dep_version}?arch={arch}&distro=debian-12"}],
            "comment": f"A dependency of the package: Depends: {dependency} (the version is the build machine's).",
        })
        relationships.append({"spdxElementId": root_id, "relationshipType": "DEPENDS_ON", "relatedSpdxElement": dep_id})

    created = datetime.fromtimestamp(args.epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = hashlib.sha256(json.dumps([packages, relationships], sort_keys=True).encode()).hexdigest()[:16]
    document = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{name}_{version}_{arch}",
        "documentNamespace": f"https://spdx.clup.example/{name}/{version}/{arch}/{digest}",
        "creationInfo": {"created": created, "creators": ["Tool: scripts/lib/sbom.py", SUPPLIER]},
        "hasExtractedLicensingInfos": [{"licenseId": "LicenseRef-proprietary", "extractedText": "Proprietary: see debian/copyright.",
                                        "name": "CLup Totem licence"}],
        "packages": packages, "relationships": relationships,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"sbom: {args.out}: {len(linked)} Swift packages, the Swift runtime {swift_version}, {len(depends)} Debian dependencies")


if __name__ == "__main__":
    main()
