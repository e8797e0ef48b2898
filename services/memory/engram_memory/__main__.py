from .main import main

# Guarded: PDF worker processes (pdf_worker.py) import the main module again.
if __name__ == "__main__":
    main()
