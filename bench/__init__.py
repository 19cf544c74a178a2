"""Hand-run benchmarks: contentapi side by side with the reference Strapi (`make bench`)."""
