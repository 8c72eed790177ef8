"""Domain packs for tau2; each subpackage registers one domain under the `tau2.domains` entry points."""
