# Homebrew formula for yttcheck (a tap: `brew install yttcheck/tap/yttcheck`).
# The release workflow fills in the version and each archive's SHA-256 from the
# .sha256 files it publishes; this copy is the template it starts from.
class Yttcheck < Formula
  desc "Fast, git-aware checker for Carvel ytt data values, schemas and validations"
  homepage "https://github.com/yttcheck/yttcheck"
  version "0.1.0"
  license "Apache-2.0"

  on_macos do
    on_arm do
      url "https://github.com/yttcheck/yttcheck/releases/download/v#{version}/yttcheck-v#{version}-aarch64-apple-darwin.tar.gz"
      sha256 "@SHA256_aarch64-apple-darwin@"
    end
    on_intel do
      url "https://github.com/yttcheck/yttcheck/releases/download/v#{version}/yttcheck-v#{version}-x86_64-apple-darwin.tar.gz"
      sha256 "@SHA256_x86_64-apple-darwin@"
    end
  end

  on_linux do
    on_arm do
      url "https://github.com/yttcheck/yttcheck/releases/download/v#{version}/yttcheck-v#{version}-aarch64-unknown-linux-musl.tar.gz"
      sha256 "@SHA256_aarch64-unknown-linux-musl@"
    end
    on_intel do
      url "https://github.com/yttcheck/yttcheck/releases/download/v#{version}/yttcheck-v#{version}-x86_64-unknown-linux-musl.tar.gz"
      sha256 "@SHA256_x86_64-unknown-linux-musl@"
    end
  end

  def install
    bin.install "yttcheck"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/yttcheck --version")
  end
end
