// Writes the package.json of a published npm package to stdout.
//
//   node manifest.mjs platform VERSION linux-x64            @fsbox/linux-x64: os/cpu and the binary
//   node manifest.mjs sdk VERSION sdks/typescript/package.json   @fsbox/sdk: the SDK's own manifest
//                                                            less dev fields, plus every platform
//                                                            package as an optional dependency
//
// The platform names are those of PLATFORM_PACKAGES in sdks/typescript/src/client.ts (process.platform
// and process.arch), so npm installs exactly the one package the resolver looks for.
import { readFileSync } from "node:fs";

const PLATFORMS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
const [kind, version, arg] = process.argv.slice(2);

let manifest;
if (kind === "platform") {
  const [os, cpu] = arg.split("-");
  manifest = {
    name: `@fsbox/${arg}`,
    version,
    description: `The fsbox binary for ${arg}; installed by @fsbox/sdk`,
    os: [os],
    cpu: [cpu],
    files: ["bin", "README.md"],
    preferUnplugged: true,
  };
} else if (kind === "sdk") {
  const dev = JSON.parse(readFileSync(arg, "utf8"));
  const { scripts, devDependencies, ...rest } = dev;
  manifest = {
    ...rest,
    version,
    optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [`@fsbox/${p}`, version])),
  };
} else {
  console.error("usage: node manifest.mjs platform|sdk VERSION ARG");
  process.exit(2);
}
process.stdout.write(JSON.stringify(manifest, null, 2) + "\n");
